"""Whole programs under both libraries: training and inference programs, the GPT example, the runner."""
