"""Finding CANN's libraries from the environment (read only; the user's variables are never changed).

Search order, first hit wins per library:
  MINDTORCH_NPU_LIB_DIR                                   an explicit directory (the simulator uses it)
  ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME                   <root>/lib64, <root>/<arch>-linux/lib64
  LD_LIBRARY_PATH                                         each directory
  /usr/local/Ascend/cann, /usr/local/Ascend/ascend-toolkit/latest
                                                          the standard install prefixes (CANN 9, earlier)
"""

import ctypes
import os
import platform

LIBRARIES = ("libascendcl.so", "libnnopbase.so", "libopapi.so")
# newer packages ship ACLNN's operators per family (lib64/libopapi_<family>.so) and no longer need
# libopapi.so: an operator is looked up in these first, in torch_npu's order, then in libopapi.so
OPAPI_FAMILIES = (
    "libopapi_math.so",
    "libopapi_nn.so",
    "libopapi_cv.so",
    "libopapi_transformer.so",
    "libopapi_legacy.so",
)
OPTIONAL = OPAPI_FAMILIES + ("libhccl.so",)  # libhccl: needed by torch.distributed's hccl backend only
STANDARD_PREFIXES = ("/usr/local/Ascend/cann", "/usr/local/Ascend/ascend-toolkit/latest")
SETUP_HINT = (
    "install the CANN toolkit and run `source /usr/local/Ascend/ascend-toolkit/set_env.sh` "
    "(or set ASCEND_HOME_PATH / MINDTORCH_NPU_LIB_DIR to the directory holding libascendcl.so)"
)


def _roots(root):
    arch = platform.machine()
    return [os.path.join(root, "lib64"), os.path.join(root, f"{arch}-linux", "lib64"), root]


def candidate_dirs(environ=None):
    """[(directory, where it came from)] in search order."""
    env = os.environ if environ is None else environ
    out = []
    if env.get("MINDTORCH_NPU_LIB_DIR"):
        out.append((env["MINDTORCH_NPU_LIB_DIR"], "MINDTORCH_NPU_LIB_DIR"))
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        if env.get(var):
            out += [(d, var) for d in _roots(env[var])]
    for d in filter(None, env.get("LD_LIBRARY_PATH", "").split(os.pathsep)):
        out.append((d, "LD_LIBRARY_PATH"))
    out += [(d, "standard prefix") for prefix in STANDARD_PREFIXES for d in _roots(prefix)]
    return out


def locate(environ=None):
    """{library: (path or None, where)}: where each library was found, or every place looked."""
    dirs = candidate_dirs(environ)
    found = {}
    for lib in LIBRARIES + OPTIONAL:
        hit = next(((os.path.join(d, lib), src) for d, src in dirs if os.path.isfile(os.path.join(d, lib))), None)
        found[lib] = hit if hit else (None, "not found in " + (", ".join(d for d, _ in dirs) or "any directory"))
    return found


class OperatorLibraries:
    """ACLNN's operator libraries as one: an entry point comes from the first library that exports it."""

    def __init__(self, libs):
        self.libs = libs

    def __getattr__(self, name):
        for lib in self.libs:
            try:
                return getattr(lib, name)
            except AttributeError:
                continue
        raise AttributeError(f"no ACLNN operator library exports {name}")


class Libraries:
    """The loaded libraries (and libhccl.so on demand), or the reason they could not be loaded."""

    def __init__(self, environ=None):
        self.located = locate(environ)
        self.ascendcl = self.nnopbase = self.opapi = self.hccl = None
        self.error = None
        operators = [lib for lib in OPAPI_FAMILIES + ("libopapi.so",) if self.located[lib][0] is not None]
        missing = [lib for lib in LIBRARIES[:2] if self.located[lib][0] is None]
        if not operators:
            missing.append("libopapi.so or " + ", ".join(OPAPI_FAMILIES))
        if missing:
            self.error = f"CANN libraries not found ({', '.join(missing)}): {SETUP_HINT}"
            return
        try:  # order matters: the operator libraries resolve symbols of the other two
            load = lambda lib: ctypes.CDLL(self.located[lib][0], mode=ctypes.RTLD_GLOBAL)
            self.ascendcl, self.nnopbase = load(LIBRARIES[0]), load(LIBRARIES[1])
            self.opapi = OperatorLibraries([load(lib) for lib in operators])
        except OSError as exc:
            self.error = f"CANN libraries could not be loaded: {exc}; {SETUP_HINT}"

    def load_hccl(self):
        """libhccl.so, loaded on first use; RuntimeError saying where it was looked for when it is absent."""
        if self.hccl is None:
            path, where = self.located["libhccl.so"]
            if path is None:
                raise RuntimeError(f"libhccl.so was {where}: the hccl backend needs CANN's HCCL; {SETUP_HINT}")
            self.hccl = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        return self.hccl

    @property
    def ok(self):
        return self.error is None

    def describe(self):
        return {
            lib: (path if path else f"missing ({where})") + (f" [{where}]" if path else "")
            for lib, (path, where) in self.located.items()
        }
