"""The profiler's switch, in a module that imports nothing of mindtorch (dispatch and the generated functions
read it on every op): `ACTIVE` is empty unless a profiler records, and then holds its recorder, which times
each op `dispatch.call` hands it. mindtorch.autograd.profiler owns the recorder."""

ACTIVE: list = []
