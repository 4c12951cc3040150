"""PyTorch as the oracle, one folder per subject. The folders are packages so that test modules
of the same name in different folders (and in tests/cpu, tests/nn, ...) import under distinct names."""
