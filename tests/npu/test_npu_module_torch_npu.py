"""torch.npu as torch_npu has it: the device, memory and random functions a training script calls, the
switches answered for what this backend does (no operator is compiled; every tensor is ND), and a clear
AttributeError naming each torch_npu name the backend does not provide."""

import warnings

import mindtorch as torch
import pytest
from mindtorch_npu import precision
from mindtorch_npu.module import NOT_PROVIDED


def test_device_functions():
    assert torch.npu.get_device_name(0) == torch.npu.get_device_properties(0).name
    props = torch.npu.get_device_properties("npu:0")
    assert props.total_memory == torch.npu.mem_get_info(0)[1] > 0
    assert torch.npu.get_device_capability() is None
    x = torch.ones(2, device="npu:1")
    with torch.npu.device_of(x):
        assert torch.npu.current_device() == 1
    assert torch.npu.current_device() == 0
    with torch.npu.device_of(torch.ones(2)):  # a cpu tensor changes nothing
        assert torch.npu.current_device() == 0
    assert x.is_npu and not x.cpu().is_npu and x.cpu().npu(1).device == x.device


def test_memory_aliases():
    x = torch.ones(1024, device="npu")
    assert torch.npu.memory_cached() == torch.npu.memory_reserved()
    assert torch.npu.max_memory_cached() == torch.npu.max_memory_reserved()
    torch.npu.reset_max_memory_allocated()
    assert torch.npu.max_memory_allocated() == torch.npu.memory_allocated()
    del x
    assert torch.npu.get_allocator_backend() == "native"


def test_rng_state_all_round_trips():
    states = torch.npu.get_rng_state_all()
    assert len(states) == torch.npu.device_count()
    a = torch.rand(4, device="npu")
    torch.npu.set_rng_state_all(states)
    assert torch.equal(torch.rand(4, device="npu").cpu(), a.cpu())
    torch.npu.seed_all()
    assert not torch.equal(torch.rand(4, device="npu").cpu(), a.cpu())


def test_compile_switches_say_nothing_is_compiled():
    assert torch.npu.is_jit_compile_false()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.npu.set_compile_mode(jit_compile=False)
        torch.npu.set_option({"MM_BMM_ND_ENABLE": "enable"})
        torch.npu.config.allow_internal_format = False
    with pytest.warns(UserWarning, match="no operator is compiled online"):
        torch.npu.set_compile_mode(jit_compile=True)
    assert torch.npu.is_jit_compile_false()
    with pytest.warns(UserWarning, match="ND format"):
        torch.npu.config.allow_internal_format = True
    assert torch.npu.config.allow_internal_format is False
    with pytest.warns(UserWarning, match="no effect"):
        torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "enable"})
    assert torch.npu.get_mm_bmm_format_nd()


def test_set_option_checks_what_it_is_given():
    with pytest.raises(TypeError, match="dict"):
        torch.npu.set_option([("ALLOW_CONV_HF32", "enable")])
    with pytest.raises(ValueError, match="NO_SUCH_OPTION"):
        torch.npu.set_option({"NO_SUCH_OPTION": "enable"})
    with pytest.raises(ValueError, match="enable"):
        torch.npu.set_option({"ALLOW_MATMUL_HF32": "sometimes"})
    saved = precision.matmul.allow_hf32
    try:
        torch.npu.set_option({"ALLOW_MATMUL_HF32": "enable"})
        assert torch.npu.matmul.allow_hf32 is True
        torch.npu.set_option({"ALLOW_MATMUL_HF32": "disable"})
        assert torch.npu.matmul.allow_hf32 is False
    finally:
        precision.matmul.allow_hf32 = saved


@pytest.mark.parametrize("name", sorted(NOT_PROVIDED))
def test_names_not_provided_raise_naming_them(name):
    assert not hasattr(torch.npu, name)
    with pytest.raises(AttributeError, match=f"torch.npu.{name} \\(a torch_npu API\\) is not provided"):
        getattr(torch.npu, name)


def test_autocast_switches():
    assert not torch.npu.is_autocast_enabled()
    torch.npu.set_autocast_dtype(torch.bfloat16)
    torch.npu.set_autocast_enabled(True)
    try:
        assert torch.is_autocast_enabled("npu") and torch.npu.get_autocast_dtype() is torch.bfloat16
    finally:
        torch.npu.set_autocast_enabled(False)
        torch.npu.set_autocast_dtype(torch.float16)
    assert torch.npu.get_amp_supported_dtype() == [torch.float16, torch.bfloat16, torch.float32]
