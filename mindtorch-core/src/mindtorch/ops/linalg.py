"""Linear algebra: matmul and friends, addmm/baddbmm, einsum, products composed of other ops (trace, kron,
tensordot, inner, vdot, addr, addbmm, cross, chain_matmul), cdist, matrix norms, and the factorizations
and solvers of mindtorch.linalg (inverse, slogdet, solve, cholesky, eigh, qr, svd, lstsq: a kernel per
backend, batched over leading dims; a singular or non-positive-definite input raises LinAlgError)."""

from .. import _dtype as D
from .._geometry import broadcast_shapes, wrap_dim
from . import meta as M
from .formulas import complex_aware, conj, shape_of, sum_to, torch  # noqa: F401
from .registry import copy_into_self, defop

F = "linalg"
TM = M.TensorMeta


from .._dtype import _cname as _tname  # noqa: E402


def _same_dtype(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {D.cpp_name(a.dtype)} != {D.cpp_name(b.dtype)}"
        )
    if a.dtype is D.bool_:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _mm_check(s1, s2):
    if s1[-1] != s2[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({s1[-2]}x{s1[-1]} and {s2[-2]}x{s2[-1]})")


def _dims(s):
    return "x".join(map(str, s))


# --- meta rules --------------------------------------------------------------
# (shape, shape, dtype) -> the result of a valid product of two matrices: metas are never changed once
# made, so a repeated geometry (a layer's weight, a small product in a loop) skips the rule
_MATRIX_PRODUCTS: dict = {}


def _matmul_meta(self, other):
    a, b = self._shape, other._shape
    dt = self.dtype
    if dt is other.dtype:
        m = _MATRIX_PRODUCTS.get((a, b, dt))
        if m is not None:
            return m
    na, nb = len(a), len(b)
    if na == 2 and nb == 2:  # the commonest case: nothing to broadcast
        if dt is other.dtype and dt is not D.bool_ and a[1] == b[0]:
            m = TM((a[0], b[1]), dt)
            if len(_MATRIX_PRODUCTS) < 4096:
                _MATRIX_PRODUCTS[(a, b, dt)] = m
            return m
        _mm_check(a, b)  # PyTorch names mismatched shapes before mismatched dtypes
        if dt is D.bool_ and other.dtype is dt and not (a[0] and a[1] and b[1]):
            return TM((a[0], b[1]), dt)  # an empty product or sum: PyTorch runs no kernel that refuses bool
        _same_dtype(self, other)
        return TM((a[0], b[1]), self.dtype)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if na == 1 and nb == 1:
        if self.dtype is not other.dtype:
            raise RuntimeError(
                f"dot : expected both vectors to have same dtype, but found {_tname(self.dtype)} "
                f"and {_tname(other.dtype)}"
            )
        if a[0] != b[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
                f"same number of elements, but got {a[0]} and {b[0]} elements respectively"
            )
        return TM((), self.dtype)
    _same_dtype(self, other)
    if na == 2 and nb == 1:
        if a[1] != b[0]:
            raise RuntimeError(f"size mismatch, got input ({a[0]}), mat ({_dims(a)}), vec ({b[0]})")
        return TM((a[0],), self.dtype)
    a2 = (1,) + a if na == 1 else a
    b2 = b + (1,) if nb == 1 else b
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    _mm_check(a2, b2)
    out = batch + ((a2[-2],) if na > 1 else ()) + ((b2[-1],) if nb > 1 else ())
    return TM(out, self.dtype)


def _mm_meta(self, mat2):
    if len(self._shape) != 2:
        raise RuntimeError("self must be a matrix")
    if len(mat2._shape) != 2:
        raise RuntimeError("mat2 must be a matrix")
    _same_dtype(self, mat2)
    _mm_check(self._shape, mat2._shape)
    return TM((self._shape[0], mat2._shape[1]), self.dtype)


def _bmm_meta(self, mat2):
    if len(self._shape) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(mat2._shape) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, k = self._shape
    if mat2._shape[:2] != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: "
            f"[{mat2._shape[0]}, {mat2._shape[1]}]."
        )
    _same_dtype(self, mat2)
    return TM((b, n, mat2._shape[2]), self.dtype)


def _mv_meta(self, vec):
    if len(self._shape) != 2 or len(vec._shape) != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {len(self._shape)}, {len(vec._shape)}")
    if self._shape[1] != vec._shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({self._shape[0]}), mat ({_dims(self._shape)}), vec ({vec._shape[0]})"
        )
    _same_dtype(self, vec)
    return TM((self._shape[0],), self.dtype)


def _dot_meta(self, tensor):
    if len(self._shape) != 1 or len(tensor._shape) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(self._shape)}D and {len(tensor._shape)}D tensors")
    return _matmul_meta(self, tensor)


# --- ops ---------------------------------------------------------------------
defop(
    "matmul(Tensor self, Tensor other) -> Tensor",
    meta=_matmul_meta,
    out=True,
    family=F,
    grad={"self": "matmul_backward(grad, self, other, 0)", "other": "matmul_backward(grad, self, other, 1)"},
)
defop(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    meta=_mm_meta,
    out=True,
    family=F,
    grad={"self": "torch.mm(grad, conj(mat2.t()))", "mat2": "torch.mm(conj(self.t()), grad)"},
)
defop(
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    meta=_bmm_meta,
    out=True,
    family=F,
    grad={"self": "torch.bmm(grad, conj(mT(mat2)))", "mat2": "torch.bmm(conj(mT(self)), grad)"},
)
defop(
    "mv(Tensor self, Tensor vec) -> Tensor",
    meta=_mv_meta,
    out=True,
    family=F,
    grad={"self": "grad.unsqueeze(1) * conj(vec)", "vec": "torch.mv(conj(self.t()), grad)"},
)
defop(
    "dot(Tensor self, Tensor tensor) -> Tensor",
    meta=_dot_meta,
    out=True,
    family=F,
    grad={"self": "grad * conj(tensor)", "tensor": "grad * conj(self)"},
)


def _outer(self, vec2):
    if len(self._shape) != 1 or len(vec2._shape) != 1:
        raise RuntimeError(
            f"outer: Expected 1-D argument self, but got {len(self._shape)}-D"
            if len(self._shape) != 1
            else f"outer: Expected 1-D argument vec2, but got {len(vec2._shape)}-D"
        )
    return self.reshape((-1, 1)) * vec2


defop("outer(Tensor self, Tensor vec2) -> Tensor", composite=_outer, out=True, family=F)
defop("ger(Tensor self, Tensor vec2) -> Tensor", composite=_outer, out=True, family=F)


def _in_type(v, dtype):
    """A Python number as an integer dtype holds it: truncated, then wrapped to the type's range."""
    bits = 8 * dtype.itemsize
    v = int(v) % (1 << bits)
    return v - (1 << bits) if dtype.is_signed and v >= 1 << (bits - 1) else v


def _scaled(prod, inp, beta, alpha):
    if prod.dtype._kind == 1:  # integer results take beta and alpha in their own type, as PyTorch's
        beta, alpha = _in_type(beta, prod.dtype), _in_type(alpha, prod.dtype)
    prod = prod if alpha == 1 else prod * alpha
    if beta == 0:  # beta=0 ignores inp, even its NaNs
        return prod
    return prod + (inp if beta == 1 else inp * beta)


def _check_bias(name, inp, shape):
    try:
        out = broadcast_shapes(inp._shape, shape)
    except RuntimeError:
        out = None
    if out != tuple(shape):
        raise RuntimeError(
            f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
            f"({inp._shape[-1] if inp._shape else 1}) at non-singleton dimension "
            f"{len(shape) - 1}.  Target sizes: [{', '.join(map(str, shape))}].  Tensor sizes: "
            f"[{', '.join(map(str, inp._shape))}]"
        )


def _same_dtypes(name, self, a, b):
    """The three operands share one dtype (no promotion), with each op's own PyTorch message."""
    if self.dtype == a.dtype == b.dtype:
        return
    names = [_tname(t.dtype) for t in (self, a, b)]
    if name == "addmm":
        first = ("self", self) if self.dtype != b.dtype else ("mat1", a)
        raise RuntimeError(
            f"{first[0]} and mat2 must have the same dtype, but got {_tname(first[1].dtype)} and {_tname(b.dtype)}"
        )
    if name == "addmv":
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and {names[2]}"
        )
    c = [D.cpp_name(t.dtype) for t in (self, a, b)]
    raise RuntimeError(f"Input dtypes must be the same, got: input {c[0]}, batch1: {c[1]}, batch2: {c[2]}")


def _add_product(name, product):
    """self * beta + (a @ b) * alpha; float16/bfloat16 are computed in float32 and rounded once, as PyTorch."""

    def composite(self, a, b, beta=1, alpha=1):
        _same_dtypes(name, self, a, b)
        low = a.dtype if a.dtype in (torch.float16, torch.bfloat16) and a.dtype == b.dtype == self.dtype else None
        if low is not None:
            self, a, b = self.float(), a.float(), b.float()
        p = product(a, b)
        _check_bias(name, self, p._shape)
        out = _scaled(p, self, beta, alpha)
        return out if low is None else out.to(low)

    return composite


_addmm = _add_product("addmm", lambda a, b: torch.mm(a, b))
_baddbmm = _add_product("baddbmm", lambda a, b: torch.bmm(a, b))
_addmv = _add_product("addmv", lambda a, b: torch.mv(a, b))


defop(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    composite=_addmm,
    inplace=True,
    inplace_composite=copy_into_self(_addmm),
    out=True,
    family=F,
)
defop(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    composite=_baddbmm,
    inplace=True,
    inplace_composite=copy_into_self(_baddbmm),
    out=True,
    family=F,
)
defop(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    composite=_addmv,
    inplace=True,
    inplace_composite=copy_into_self(_addmv),
    out=True,
    family=F,
)


# --- einsum: parsed here, contracted pairwise with permute/reshape/bmm -------
def _parse_einsum(eq, operands):  # noqa: C901
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(
            "einsum(): more operands were provided than specified in the equation"
            if len(operands) > len(terms)
            else "einsum(): fewer operands were provided than specified in the equation"
        )
    ell_n = 0
    parsed = []
    for t, op in zip(terms, operands):
        nd = len(op._shape)
        if "..." in t:
            pre, _, post = t.partition("...")
            k = nd - len(pre) - len(post)
            if k < 0:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(pre) + len(post)}) "
                    f"is more than the number of dimensions ({nd}) for operand "
                    f"{len(parsed)}"
                )
            ell_n = max(ell_n, k)
            labels = list(pre) + [("...", i) for i in range(k)] + list(post)
        else:
            if len(t) != nd:
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({len(t)}) does not match "
                    f"the number of dimensions ({nd}) for operand {len(parsed)}"
                    + ("" if len(t) > nd else " and no ellipsis was given")
                )
            labels = list(t)
        for c in labels:
            if isinstance(c, str) and not c.isalpha():
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {eq.index(c)} in the equation "
                    f"string, subscripts must be in [a-zA-Z]"
                )
        parsed.append(labels)
    # right-align ellipsis dims so they broadcast together
    for labels in parsed:
        ks = [c for c in labels if isinstance(c, tuple)]
        shift = ell_n - len(ks)
        for j, c in enumerate(labels):
            if isinstance(c, tuple):
                labels[j] = ("...", c[1] + shift)
    ell = [("...", i) for i in range(ell_n)]
    if arrow:
        out = []
        pre, dots, post = rhs.partition("...")
        out = list(pre) + (ell if dots else []) + list(post)
        seen = set()
        for c in out:
            if c in seen:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            seen.add(c)
            if isinstance(c, str) and not any(c in l for l in parsed):
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any input operand"
                )
    else:
        counts = {}
        for l in parsed:
            for c in l:
                if isinstance(c, str):
                    counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1)
    return parsed, out


def _diag_repeats(t, labels):
    """Take diagonals for labels repeated within one operand (ii->i)."""
    while True:
        for i, c in enumerate(labels):
            j = labels.index(c, i + 1) if labels.count(c) > 1 else -1
            if j > 0:
                t = t.diagonal(0, i, j)  # new dim goes last
                labels = [x for k, x in enumerate(labels) if k not in (i, j)] + [c]
                break
        else:
            return t, labels


def _sum_out(t, labels, keep):
    dims = [i for i, c in enumerate(labels) if c not in keep]
    if dims:
        t = t.sum(dims)
        labels = [c for c in labels if c in keep]
    return t, labels


def _size_of(sizes, c):
    return sizes.get(c, 1)


def _contract(a, la, b, lb, keep):
    """a, b with distinct labels each; keep: labels needed later."""
    a, la = _sum_out(a, la, set(lb) | keep)
    b, lb = _sum_out(b, lb, set(la) | keep)
    batch = [c for c in la if c in lb and c in keep]
    contr = [c for c in la if c in lb and c not in keep]
    a_only = [c for c in la if c not in lb]
    b_only = [c for c in lb if c not in la]
    sa = dict(zip(la, a._shape))
    sb = dict(zip(lb, b._shape))
    bshape = [max(sa[c], sb[c]) for c in batch]
    a = a.permute([la.index(c) for c in batch + a_only + contr])
    b = b.permute([lb.index(c) for c in batch + contr + b_only])
    ncon = 1
    for c in contr:
        ncon *= max(sa[c], sb[c])
    na = 1
    for c in a_only:
        na *= sa[c]
    nb = 1
    for c in b_only:
        nb *= sb[c]
    nbatch = 1
    for s in bshape:
        nbatch *= s
    a = a.expand(tuple(bshape) + tuple(a._shape[len(batch) :])).reshape((nbatch, na, ncon))
    b = b.expand(tuple(bshape) + tuple(b._shape[len(batch) :])).reshape((nbatch, ncon, nb))
    r = torch.bmm(a, b)
    r = r.reshape(tuple(bshape) + tuple(sa[c] for c in a_only) + tuple(sb[c] for c in b_only))
    return r, batch + a_only + b_only


def _einsum(equation, tensors, path=None):
    ops = list(tensors)
    if not ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    parsed, out = _parse_einsum(equation, ops)
    terms = []
    for t, l in zip(ops, parsed):
        terms.append(_diag_repeats(t, l))
    dtype = ops[0].dtype
    for t in ops[1:]:
        dtype = D.promote_types(dtype, t.dtype)
    terms = [(t if t.dtype is dtype else t.to(dtype), l) for t, l in terms]
    if len(terms) == 1:
        t, l = terms[0]
        t, l = _sum_out(t, l, set(out))
    else:
        t, l = terms[0]
        for k in range(1, len(terms)):
            later = set(out)
            for _, l2 in terms[k + 1 :]:
                later |= set(l2)
            t, l = _contract(t, l, terms[k][0], terms[k][1], later)
    return t.permute([l.index(c) for c in out]) if l != out else (t if len(terms) > 1 else t.clone())


defop(
    "einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", composite=_einsum, method=False, family=F
)


# --- matrix helpers for mindtorch.linalg --------------------------------------
def _svdvals_meta(A, driver=None):
    if len(A._shape) < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    k = min(A._shape[-2:])
    return TM(tuple(A._shape[:-2]) + (k,), A.dtype.to_real())


defop(
    "linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor",
    meta=_svdvals_meta,
    method=False,
    family=F,
    grad={"A": "svdvals_backward(grad, A)"},
)


# --- products composed of other ops: trace, kron, tensordot, inner, vdot, addr, addbmm, chain_matmul, cross ---
def _trace(self):
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    return torch.diagonal(self).sum()


defop("trace(Tensor self) -> Tensor", composite=_trace, family=F)


def _kron(self, other):
    nd = max(self.dim(), other.dim())
    a = self.reshape((1,) * (nd - self.dim()) + tuple(self.shape))
    b = other.reshape((1,) * (nd - other.dim()) + tuple(other.shape))
    # interleave: a[i0, 1, i1, 1, ...] * b[1, j0, 1, j1, ...] -> (i0*j0, i1*j1, ...)
    ai = a.reshape([s for d in a.shape for s in (d, 1)])
    bi = b.reshape([s for d in b.shape for s in (1, d)])
    return (ai * bi).reshape([x * y for x, y in zip(a.shape, b.shape)])


defop("kron(Tensor self, Tensor other) -> Tensor", composite=_kron, out=True, family=F)


def _tensordot(a, b, dims=2, out=None):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif hasattr(dims, "_shape"):
        return _tensordot(a, b, dims.tolist() if dims.dim() else int(dims.item()))
    else:
        da, db = dims
        da, db = ([da] if isinstance(da, int) else list(da)), ([db] if isinstance(db, int) else list(db))
    da = [wrap_dim(d, a.dim()) for d in da]
    db = [wrap_dim(d, b.dim()) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                f"and second has size {b.shape[y]} in dim {y}"
            )
    ra = [d for d in range(a.dim()) if d not in da]
    rb = [d for d in range(b.dim()) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    am = a.permute(ra + da).reshape(-1, k)
    bm = b.permute(db + rb).reshape(k, -1)
    res = (am @ bm).reshape([a.shape[d] for d in ra] + [b.shape[d] for d in rb])
    return res if out is None else out.resize_(res.shape).copy_(res)


def _inner(self, other):
    if self.dim() == 0 or other.dim() == 0:
        return self * other
    if self.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(self.shape)} and {list(other.shape)}"
        )
    return _tensordot(self, other, ([-1], [-1]))


defop("inner(Tensor self, Tensor other) -> Tensor", composite=_inner, out=True, family=F)


def _vdot(self, other):
    if self.dtype is not other.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {D._cname(self.dtype)} and "
            f"{D._cname(other.dtype)}"
        )
    if self.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
    return (self.conj() * other).sum() if self.is_complex() else torch.dot(self, other)


defop("vdot(Tensor self, Tensor other) -> Tensor", composite=_vdot, out=True, family=F)


def _addr(self, vec1, vec2, beta=1, alpha=1):
    prod = torch.outer(vec1, vec2)
    kind = prod.dtype._kind
    for name, v in (("beta", beta), ("alpha", alpha)):
        if kind < 2 and isinstance(v, float):  # PyTorch's addr checks (addmm truncates instead)
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
        if kind and isinstance(v, bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if kind == 0:  # bool: beta and self, or alpha and the outer product
        out = prod if alpha else torch.zeros_like(prod)
        return out if not beta else torch.logical_or(out, self.expand_as(out))
    return _scaled(prod, self, beta, alpha)


def _addbmm(self, batch1, batch2, beta=1, alpha=1):
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if not (self.dtype is batch1.dtype is batch2.dtype):
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {D._cname(batch1.dtype)} and {D._cname(batch2.dtype)}"
        )
    return _scaled(torch.bmm(batch1, batch2).sum(0, dtype=batch1.dtype), self, beta, alpha)


defop(
    "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    composite=_addr,
    out=True,
    inplace=True,
    inplace_composite=copy_into_self(_addr),
    family=F,
)
defop(
    "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    composite=_addbmm,
    out=True,
    inplace=True,
    inplace_composite=copy_into_self(_addbmm),
    family=F,
)


def _chain_matmul(matrices):
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    out = matrices[0]
    for m in matrices[1:]:
        out = torch.mm(out, m)
    return out.clone() if len(matrices) == 1 else out


defop("chain_matmul(Tensor[] matrices) -> Tensor", composite=_chain_matmul, out=True, method=False, family=F)


def _cross3(a, b, d):
    """The cross product of the length-3 vectors along dim d (broadcast first)."""
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {D._cname(a.dtype)} but found {D._cname(b.dtype)}")
    if a.dtype is D.bool_:
        raise M.not_implemented("cross", a.dtype)
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    a, b = torch.broadcast_tensors(a, b)
    if a.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {d} must have length 3. Got {a.shape[d]} and {b.shape[d]}")
    ax, ay, az = (a.select(d, i) for i in range(3))
    bx, by, bz = (b.select(d, i) for i in range(3))
    return torch.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], d)


def _cross(self, other, dim=None):
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
            "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
            "with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=3,
        )
        dim = next((i for i, n in enumerate(self.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross3(self, other, wrap_dim(dim, self.dim()))


defop("cross(Tensor self, Tensor other, int? dim=None) -> Tensor", composite=_cross, out=True, family=F)
defop(
    "linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
    composite=lambda s, o, dim=-1: _cross3(s, o, wrap_dim(dim, max(s.dim(), o.dim()))),
    function=False,
    method=False,
    family=F,
)


# --- distances: cdist -----------------------------------------------------------------------------
def _cdist(x1, x2, p=2.0, compute_mode=None):
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype._kind != 2:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {D._cname(x.dtype)}")
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).sum(-1).to(x1.dtype)
    if p == float("inf"):
        return diff.amax(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:  # sqrt's gradient at 0 is inf; PyTorch's cdist backward gives 0 there
        sq = (diff * diff).sum(-1)
        zero = sq == 0
        return torch.where(zero, torch.zeros_like(sq), torch.where(zero, torch.ones_like(sq), sq).sqrt())
    return diff.pow(p).sum(-1).pow(1.0 / p)


defop(
    "cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor", composite=_cdist, method=False, family=F
)


# --- matrix norms: renorm, nuclear_norm, frobenius_norm -------------------------------------------
def _renorm(self, p, dim, maxnorm):
    """Rescale each slice along dim whose p-norm exceeds maxnorm down to maxnorm."""
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = wrap_dim(dim, self.dim())
    others = [i for i in range(self.dim()) if i != d]
    norms = torch.linalg.vector_norm(self, p, others, keepdim=True)
    factor = torch.where(norms > maxnorm, maxnorm / (norms + 1e-7), torch.ones_like(norms))
    return self * factor


defop(
    "renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor",
    composite=_renorm,
    out=True,
    inplace=True,
    inplace_composite=copy_into_self(_renorm),
    family=F,
)
defop(
    "nuclear_norm(Tensor self, bool keepdim=False) -> Tensor",
    composite=lambda s, keepdim=False: torch.linalg.matrix_norm(s, "nuc", keepdim=keepdim),
    method=False,
    out=True,
    family=F,
)
defop(
    "frobenius_norm(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    composite=lambda s, dim, keepdim=False: torch.linalg.vector_norm(s, 2, dim, keepdim=keepdim),
    method=False,
    out=True,
    family=F,
)


# --- factorizations and solvers for mindtorch.linalg: shape rules ---------------------------------
def _square(name, A):
    if len(A._shape) < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    _floating(name, A)


def _floating(name, A):
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got {_tname(A.dtype)}"
        )


def _matrix(name, A):
    if len(A._shape) < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    _floating(name, A)


def _inv_meta(A):
    _square("inv", A)
    return TM(A._shape, A.dtype)


def _slogdet_meta(A):
    _square("slogdet", A)
    return TM(A._shape[:-2], A.dtype), TM(A._shape[:-2], A.dtype.to_real())


def _solve_meta(A, B, left=True):
    _square("solve", A)
    if B._shape[-2:-1] != A._shape[-1:]:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
            f"({A._shape[-2]}x{A._shape[-1]} and {B._shape[-2]}x{B._shape[-1]})"
        )
    batch = broadcast_shapes(A._shape[:-2], B._shape[:-2])
    return TM(tuple(batch) + tuple(B._shape[-2:]), A.dtype)


def _cholesky_meta(A, upper=False):
    _square("cholesky", A)
    return TM(A._shape, A.dtype)


def _eigh_meta(A, UPLO="L"):
    _square("eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return TM(A._shape[:-1], A.dtype.to_real()), TM(A._shape, A.dtype)


def _qr_meta(A, mode="reduced"):
    _matrix("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    m, n = A._shape[-2:]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    if mode == "r":
        return TM(batch + (0,), A.dtype), TM(batch + (k, n), A.dtype)
    q = m if mode == "complete" else k
    return TM(batch + (m, q), A.dtype), TM(batch + (q, n), A.dtype)


def _svd_meta(A, full_matrices=True, driver=None):
    _matrix("svd", A)
    m, n = A._shape[-2:]
    k = min(m, n)
    batch = tuple(A._shape[:-2])
    um, vn = (m, n) if full_matrices else (k, k)
    return TM(batch + (m, um), A.dtype), TM(batch + (k,), A.dtype.to_real()), TM(batch + (vn, n), A.dtype)


def _lstsq_meta(A, B, rcond=None, driver=None):
    _matrix("lstsq", A)
    m, n = A._shape[-2:]
    batch = tuple(A._shape[:-2])
    return (
        TM(batch + (n,) + tuple(B._shape[-1:]), A.dtype),
        TM((0,), A.dtype.to_real()),
        TM(batch, torch.int64),
        TM(batch + (min(m, n),), A.dtype.to_real()),
    )


# --- factorizations and solvers: the ops (kernels per backend, derivatives in formulas.py) --------
defop(
    "linalg_inv(Tensor A) -> Tensor", meta=_inv_meta, method=False, family=F, grad={"A": "inv_backward(grad, result)"}
)
defop(
    "linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
    meta=_slogdet_meta,
    method=False,
    family=F,
    grad={"A": "slogdet_backward(grads[1], A)"},
)
defop(
    "linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
    meta=_solve_meta,
    method=False,
    family=F,
    grad={"A": "solve_backward_A(grad, A, result)", "B": "solve_backward_B(grad, A)"},
)
defop(
    "linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor",
    meta=_cholesky_meta,
    method=False,
    family=F,
    grad={"A": "cholesky_backward(grad, result, upper)"},
)
defop(
    'linalg_eigh(Tensor A, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)',
    meta=_eigh_meta,
    method=False,
    family=F,
    grad={"A": "eigh_backward(grads, result[0], result[1])"},
)
defop(
    'linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)',
    meta=_qr_meta,
    method=False,
    family=F,
    grad={"A": "qr_backward(grads, A, result[0], result[1], mode)"},
)
defop(
    "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
    meta=_svd_meta,
    method=False,
    family=F,
    grad={"A": "svd_backward(grads, A, result[0], result[1], result[2], full_matrices)"},
)
defop(
    "linalg_lstsq(Tensor A, Tensor B, float? rcond=None, *, str? driver=None) -> (Tensor solution, Tensor "
    "residuals, Tensor rank, Tensor singular_values)",
    meta=_lstsq_meta,
    method=False,
    family=F,
    grad={"A": "lstsq_backward(grads[0], A, B, result[0], 0)", "B": "lstsq_backward(grads[0], A, B, result[0], 1)"},
)


# --- triangular solves and eigendecompositions of general matrices ---------------------------------
def check_equation_shapes(label, a_shape, b_shape, left):
    """B's rows (left: A X = B) or columns (X A = B) match A's order, or PyTorch's message."""
    if (b_shape[-2] if left else b_shape[-1]) != a_shape[-1]:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"{label}: Incompatible shapes of A and B for the equation {eq} "
            f"({a_shape[-2]}x{a_shape[-1]} and {b_shape[-2]}x{b_shape[-1]})"
        )


def _solve_triangular_meta(A, B, upper, left=True, unitriangular=False):
    if len(B._shape) < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    if len(A._shape) < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            "linalg.solve_triangular: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    check_equation_shapes("linalg.solve_triangular", A._shape, B._shape, left)
    if not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_tname(A.dtype)}'")
    batch = broadcast_shapes(A._shape[:-2], B._shape[:-2])
    return TM(tuple(batch) + tuple(B._shape[-2:]), A.dtype)


def _solve_triangular(A, B, upper, left=True, unitriangular=False):
    """What a device without a triangular-solve kernel runs: the triangle (unit diagonal if asked) through
    the general solver."""
    _solve_triangular_meta(A, B, upper, left, unitriangular)
    T = A.triu() if upper else A.tril()
    if unitriangular:
        eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        T = T - T.diagonal(0, -2, -1).diag_embed() + eye
    B = B.to(A.dtype)
    return torch.ops.linalg_solve(T, B) if left else torch.ops.linalg_solve(T.mT, B.mT).mT


defop(
    "linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor",
    meta=_solve_triangular_meta,
    composite=_solve_triangular,
    out=True,
    method=False,
    function=False,
    family=F,
    grad={
        "self": "solve_triangular_backward(grad, self, B, result, upper, left, unitriangular)[0]",
        "B": "solve_triangular_backward(grad, self, B, result, upper, left, unitriangular)[1]",
    },
)


def _square_named(label, A):
    if len(A._shape) < 2:
        raise RuntimeError(f"{label}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{label}: A must be batches of square matrices, but they are {A._shape[-2]} by {A._shape[-1]} matrices"
        )


def _eig_meta(A):
    _square_named("linalg.eig", A)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {_tname(A.dtype)}")
    if A.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"linalg_eig_out_cpu\" not implemented for '{_tname(A.dtype)}'")
    c = A.dtype.to_complex()
    return TM(A._shape[:-1], c), TM(A._shape, c)


defop(
    "linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)",
    meta=_eig_meta,
    method=False,
    function=False,
    family=F,
    grad={"self": "eig_backward(grads, self, result[0], result[1])"},
)


def _geqrf_meta(A):
    if len(A._shape) < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_tname(A.dtype)}'")
    return TM(A._shape, A.dtype), TM(tuple(A._shape[:-2]) + (min(A._shape[-2:]),), A.dtype)


defop(
    "geqrf(Tensor self) -> (Tensor a, Tensor tau)",
    meta=_geqrf_meta,
    out=True,
    family=F,
    grad={"self": "not_implemented('geqrf')"},
)


def _ldl_factor_meta(A, hermitian=False):
    label = "torch.linalg.ldl_factor_ex"
    _square_named(label, A)
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{label}: Expected a floating point or complex tensor as input. Got {_tname(A.dtype)}")
    if A.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"ldl_factor_cpu\" not implemented for '{_tname(A.dtype)}'")
    batch = tuple(A._shape[:-2])
    return TM(A._shape, A.dtype), TM(batch + (A._shape[-1],), D.int32), TM(batch, D.int32)


defop(
    "linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots, Tensor info)",
    meta=_ldl_factor_meta,
    method=False,
    function=False,
    family=F,
)


def _ldl_solve_meta(LD, pivots, B, hermitian=False):
    if len(B._shape) < 2:
        d = max(len(B._shape), 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], but got -2)")
    if LD._shape[-1] != B._shape[-2]:
        raise RuntimeError(
            f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {LD._shape[-2]} by "
            f"{LD._shape[-1]} but each b matrix is {B._shape[-2]} by {B._shape[-1]}"
        )
    if B.dtype is not LD.dtype:
        raise RuntimeError(
            f"torch.linalg.ldl_solve: Expected LD and B to have the same dtype, but got LD with dtype "
            f"{_tname(LD.dtype)} and B with dtype {_tname(B.dtype)} instead"
        )
    batch = broadcast_shapes(LD._shape[:-2], B._shape[:-2])
    return TM(tuple(batch) + tuple(B._shape[-2:]), B.dtype)


defop(
    "linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor",
    meta=_ldl_solve_meta,
    method=False,
    function=False,
    family=F,
)
