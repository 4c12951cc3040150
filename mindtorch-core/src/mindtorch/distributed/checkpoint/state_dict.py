"""State dicts of (possibly wrapped) models and optimizers (torch.distributed.checkpoint.state_dict).

Without sharding every rank holds whole tensors, so these are the module's and optimizer's own state
dicts, with DistributedDataParallel's wrapper looked through."""

from dataclasses import dataclass

__all__ = [
    "StateDictOptions",
    "get_model_state_dict",
    "set_model_state_dict",
    "get_optimizer_state_dict",
    "set_optimizer_state_dict",
    "get_state_dict",
    "set_state_dict",
]


@dataclass
class StateDictOptions:
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False


def _inner(model):
    return getattr(model, "module", model)


def _cpu(sd, options):
    if options is not None and options.cpu_offload:
        return {k: v.cpu() if hasattr(v, "cpu") else v for k, v in sd.items()}
    return sd


def get_model_state_dict(model, *, submodules=None, options=None):
    sd = _inner(model).state_dict()
    if options is not None and options.ignore_frozen_params:
        frozen = {n for n, p in _inner(model).named_parameters() if not p.requires_grad}
        sd = {k: v for k, v in sd.items() if k not in frozen}
    return _cpu(sd, options)


def set_model_state_dict(model, model_state_dict, *, options=None):
    return _inner(model).load_state_dict(model_state_dict, strict=options.strict if options is not None else True)


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    return optimizers.state_dict()


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    optimizers.load_state_dict(optim_state_dict)


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    return get_model_state_dict(model, options=options), get_optimizer_state_dict(model, optimizers, options=options)


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return set_model_state_dict(model, model_state_dict, options=options)
