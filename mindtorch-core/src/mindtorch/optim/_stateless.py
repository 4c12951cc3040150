"""swap_in_optimizer_params_and_state: run an optimizer's API on other parameters and state for a while."""

import contextlib
from collections import defaultdict

_MISMATCH = (
    "swap_in_optimizer_params_and_state requires the explicit parameter state to match optimizer.param_groups ordering."
)


def _groups_to_swap(optimizer, swapin_parameters, swapin_optim_state):
    """[(live group, state-dict group, its swap-in parameters)], the parameters taken in order."""
    if not optimizer.state:
        raise RuntimeError("swap_in_optimizer_params_and_state requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError("swap_in_optimizer_params_and_state requires a DCP-style optimizer state_dict.")
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list) or len(groups) != len(optimizer.param_groups):
        raise RuntimeError(_MISMATCH)
    flat = list(swapin_parameters.values())
    out, at = [], 0
    for live, group in zip(optimizer.param_groups, groups):
        ids = group.get("params")
        if not isinstance(ids, list) or len(ids) != len(live["params"]) or at + len(ids) > len(flat):
            raise RuntimeError(_MISMATCH)
        out.append((live, group, flat[at : at + len(ids)]))
        at += len(ids)
    if at != len(flat):
        raise RuntimeError(_MISMATCH)
    return out


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the block the optimizer's param_groups hold `swapin_parameters` (in the order of its own
    parameters) with the hyperparameters of `swapin_optim_state` (an optimizer.state_dict()), and its state
    is that state_dict's, keyed by those parameters; on exit the live groups and state come back. In-place
    changes to the state's tensors reach `swapin_optim_state`; new entries do not."""
    plan = _groups_to_swap(optimizer, swapin_parameters, swapin_optim_state)
    state = swapin_optim_state.get("state", {})
    original_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, group, params in plan:
            live["params"] = params
            live.update({k: v for k, v in group.items() if k != "params"})
            for p, pid in zip(params, group["params"]):
                swapped[p] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for live, snapshot in zip(optimizer.param_groups, snapshots):
            live.clear()
            live.update(snapshot)
        optimizer.state = original_state
