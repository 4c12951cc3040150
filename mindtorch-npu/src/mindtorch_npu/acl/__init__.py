"""ctypes bindings to CANN: types and enums (types.py), prototypes per header (prototypes.py),
and finding and loading the libraries (libs.py)."""
