"""Tensor formats as torch_npu names them. mindtorch-npu keeps every tensor in ND format (ACL_FORMAT_ND):
there are no private layouts (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, ...), so npu_format_cast to ND returns its
input and a cast to any other format is an error saying only ND is supported."""

import enum

import mindtorch


class Format(enum.IntEnum):
    """torch_npu.Format: the aclFormat values (runtime include/external/acl/acl_base.h)."""

    UNDEFINED = -1
    NCHW = 0
    NHWC = 1
    ND = 2
    NC1HWC0 = 3
    FRACTAL_Z = 4
    NC1HWC0_C04 = 12
    HWCN = 16
    NDHWC = 27
    FRACTAL_NZ = 29
    NCDHW = 30
    NDC1HWC0 = 32
    FRACTAL_Z_3D = 33
    NC = 35
    NCL = 47


def _npu_tensor(fn, t):
    if not isinstance(t, mindtorch.Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(t).__name__}")
    if t.device.type != "npu":
        raise RuntimeError(f"{fn}(): expected an npu tensor, but got a tensor on {t.device}")


def get_npu_format(input):
    """The format of an npu tensor: always ND (2) here."""
    _npu_tensor("get_npu_format", input)
    return int(Format.ND)


def npu_format_cast(input, acl_format, customize_dtype=None):
    """`input` in format acl_format: ND is the only format here, so that returns input; any other format is a
    RuntimeError naming it."""
    _npu_tensor("npu_format_cast", input)
    try:
        fmt = Format(int(acl_format))
    except ValueError:
        raise RuntimeError(f"npu_format_cast(): {acl_format} is not an ACL format") from None
    if customize_dtype is not None:
        raise RuntimeError("npu_format_cast(): customize_dtype applies to FRACTAL_NZ, and only ND is supported")
    if fmt is not Format.ND:
        raise RuntimeError(
            f"npu_format_cast(): format {fmt.name} ({int(fmt)}) is not supported: mindtorch-npu keeps every tensor "
            "in ND format (2), the only format it supports"
        )
    return input
