"""Autograd: gradients, errors, views, activation checkpointing."""
