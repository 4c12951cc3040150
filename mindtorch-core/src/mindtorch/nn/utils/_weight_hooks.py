"""The forward pre-hooks of the hook-based weight reparametrizations (weight_norm, spectral_norm):
at most one of a kind per tensor name, and removal that hands the plain parameter back."""


def check_unregistered(module, hook_cls, name, what):
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, hook_cls) and hook.name == name:
            raise RuntimeError(f"Cannot register two {what} hooks on the same parameter {name}")


def remove_hook(module, hook_cls, name, what):
    """Let module's `hook_cls` hook on `name` restore a plain parameter, and drop the hook."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_cls) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
