"""L-BFGS without a line search: PyTorch's two-loop recursion, op for op."""

import mindtorch

from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _f(x):
    """A 0-dim tensor as the Python number PyTorch's Scalar conversion would take from it."""
    return x.item() if isinstance(x, mindtorch.Tensor) else x


class LBFGS(Optimizer):
    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        if isinstance(lr, mindtorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(
            params,
            dict(
                lr=lr,
                max_iter=max_iter,
                max_eval=max_eval,
                tolerance_grad=tolerance_grad,
                tolerance_change=tolerance_change,
                history_size=history_size,
                line_search_fn=line_search_fn,
            ),
        )
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return mindtorch.cat(
            [
                p.grad.reshape(-1) if p.grad is not None else mindtorch.zeros(p.numel(), dtype=p.dtype)
                for p in self._params
            ],
            0,
        )

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset : offset + n].view_as(p), alpha=_f(step_size))
            offset += n

    def step(self, closure):  # noqa: C901
        if closure is None:
            raise TypeError("LBFGS.step() missing 1 required positional argument: 'closure'")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change, history_size = group["tolerance_grad"], group["tolerance_change"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with mindtorch.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        with mindtorch.no_grad():
            flat_grad = self._flat_grad()
            if flat_grad.abs().max() <= tol_grad:
                return orig_loss
            d, t = state.get("d"), state.get("t")
            old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
            H_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
            n_iter = 0
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d = flat_grad.neg()
                    old_dirs, old_stps, ro, H_diag = [], [], [], 1
                else:
                    y = flat_grad.sub(prev_flat_grad)
                    s = d.mul(_f(t))
                    ys = y.dot(s)
                    if ys > 1e-10:  # keep the curvature pair only when it is positive
                        if len(old_dirs) == history_size:
                            old_dirs.pop(0)
                            old_stps.pop(0)
                            ro.pop(0)
                        old_dirs.append(y)
                        old_stps.append(s)
                        ro.append(1.0 / ys)
                        H_diag = ys / y.dot(y)
                    num_old = len(old_dirs)
                    al = state.setdefault("al", [None] * history_size)
                    q = flat_grad.neg()
                    for i in range(num_old - 1, -1, -1):
                        al[i] = old_stps[i].dot(q) * ro[i]
                        q.add_(old_dirs[i], alpha=-_f(al[i]))
                    d = r = mindtorch.mul(q, H_diag)
                    for i in range(num_old):
                        be_i = old_dirs[i].dot(r) * ro[i]
                        r.add_(old_stps[i], alpha=_f(al[i] - be_i))
                if prev_flat_grad is None:
                    prev_flat_grad = flat_grad.clone()
                else:
                    prev_flat_grad.copy_(flat_grad)
                prev_loss = loss
                if state["n_iter"] == 1:
                    inv = 1.0 / flat_grad.abs().sum()
                    t = (1.0 if inv >= 1.0 else inv) * lr  # Python's min(1.0, tensor), as PyTorch writes it
                else:
                    t = lr
                gtd = flat_grad.dot(d)
                if gtd > -tol_change:  # not a descent direction
                    break
                ls_evals = 0
                if group["line_search_fn"] is not None:  # checked where PyTorch checks it: after the direction
                    if group["line_search_fn"] != "strong_wolfe":
                        raise RuntimeError("only 'strong_wolfe' is supported")
                    raise NotImplementedError("LBFGS(line_search_fn='strong_wolfe') is not implemented in mindtorch")
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with mindtorch.enable_grad():
                        loss = float(closure())
                    flat_grad = self._flat_grad()
                    opt_cond = bool(flat_grad.abs().max() <= tol_grad)
                    ls_evals = 1
                current_evals += ls_evals
                state["func_evals"] += ls_evals
                if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                    break
                if d.mul(_f(t)).abs().max() <= tol_change or abs(loss - prev_loss) < tol_change:
                    break
            state.update(
                d=d,
                t=t,
                old_dirs=old_dirs,
                old_stps=old_stps,
                ro=ro,
                H_diag=H_diag,
                prev_flat_grad=prev_flat_grad,
                prev_loss=prev_loss,
            )
        return orig_loss
