"""torch_npu's process switches (`torch.npu.set_option`, `set_compile_mode`, `config.allow_internal_format`,
`set_mm_bmm_format_nd`), answered for what this backend does: every operator is a precompiled ACLNN kernel
(nothing is compiled online, so `jitCompile` is always off) and every tensor is kept in ND format (no
internal formats). A switch asking for something else warns that it has no effect; the float32 cube
switches map to torch.npu.conv / torch.npu.matmul.
"""

import warnings

from . import precision

_ON_OFF = {"enable": True, "disable": False}


def _warn(what):
    warnings.warn(f"{what} has no effect on mindtorch-npu", UserWarning, stacklevel=3)


def is_jit_compile_false():
    """True: mindtorch-npu runs precompiled ACLNN kernels only; no operator is compiled online."""
    return True


def set_compile_mode(jit_compile=False):
    if not isinstance(jit_compile, bool):
        raise TypeError(f"set_compile_mode(): jit_compile must be a bool, not {type(jit_compile).__name__}")
    if jit_compile:
        _warn("set_compile_mode(jit_compile=True): no operator is compiled online (ACLNN kernels only), so it")


def get_mm_bmm_format_nd():
    """True: matmuls read and write ND tensors (the only format here)."""
    return True


def set_mm_bmm_format_nd(is_nd=True):
    if not is_nd:
        _warn("set_mm_bmm_format_nd(False): every tensor is kept in ND format, so it")


class _Config:
    """`torch.npu.config`: allow_internal_format is always False here (every tensor is ND)."""

    @property
    def allow_internal_format(self):
        return False

    @allow_internal_format.setter
    def allow_internal_format(self, value):
        if value:
            _warn("config.allow_internal_format = True: every tensor is kept in ND format, so it")

    def __setattr__(self, name, value):
        if name != "allow_internal_format":
            raise AttributeError(f"torch.npu.config has no option {name!r} on mindtorch-npu")
        object.__setattr__(self, name, value)


config = _Config()


def _cube_switch(switch):
    def apply(value):
        switch.allow_hf32 = value

    return apply


# option -> what it does here: a callable taking the option's bool value, or None (an option about online
# compilation, operator dumps or tuning, none of which exist here)
_OPTIONS = {
    "ALLOW_CONV_HF32": _cube_switch(precision.conv),
    "ALLOW_MATMUL_HF32": _cube_switch(precision.matmul),
    "MM_BMM_ND_ENABLE": set_mm_bmm_format_nd,
    "ALLOW_INTERNAL_FORMAT": lambda on: setattr(config, "allow_internal_format", on),
    "jitCompile": lambda on: set_compile_mode(jit_compile=on),
    "ACL_OP_COMPILER_CACHE_MODE": None,
    "ACL_OP_COMPILER_CACHE_DIR": None,
    "ACL_OP_SELECT_IMPL_MODE": None,
    "ACL_OPTYPELIST_FOR_IMPLMODE": None,
    "ACL_AICORE_NUM": None,
    "ACL_PRECISION_MODE": None,
    "NPU_FUZZY_COMPILE_BLACKLIST": None,
    "ACL_OP_DEBUG_LEVEL": None,
    "ACL_DEBUG_DIR": None,
    "ACL_OP_DEBUG_OPTION": None,
    "ACL_DEBUG_OPTION": None,
}


def set_option(option):
    """Apply torch_npu's options that mean something here; warn for those that do not (compilation, dumps,
    tuning); ValueError for an option torch_npu does not have."""
    if not isinstance(option, dict):
        raise TypeError("npu option must be a dict.")
    unknown = [k for k in option if k not in _OPTIONS]
    if unknown:
        raise ValueError(f"unknown npu option(s) {', '.join(map(repr, unknown))}; known: {', '.join(_OPTIONS)}")
    for name, value in option.items():
        apply = _OPTIONS[name]
        if apply is None:
            _warn(f"npu option {name!r} (operator compilation, dumps and tuning do not exist here)")
        elif str(value) in _ON_OFF:
            apply(_ON_OFF[str(value)])
        else:
            raise ValueError(f"value of {name} should be in ['enable', 'disable'] but got {value}")
