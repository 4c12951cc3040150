"""The smaller namespaces programs touch: cuda, backends, cpu, library, testing, pytree, distributed names."""
