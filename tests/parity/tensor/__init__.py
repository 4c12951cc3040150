"""The Tensor object: printing, typed classes and layouts, shared memory."""
