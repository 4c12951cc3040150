"""The machinery behind mindtorch.plugins, private to core.

    registry   the loaded backends, one record per device type (a leaf: device lookup only)
    loader     entry-point discovery, checks, kernel installation; imported by mindtorch/__init__ alone
    fallback   host fallback kernels the loader installs for backends that opt in
    coverage   how a device runs an op (for `python -m mindtorch` and the conformance report)

Plugin authors see none of it: what a backend may use is re-exported by mindtorch.plugins.
"""
