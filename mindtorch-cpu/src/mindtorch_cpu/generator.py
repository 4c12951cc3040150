"""The CPU random state (NumPy's PCG64 bit generator)."""

import numpy as np

DEFAULT_SEED = 67280421310721


class CPUGenerator:
    def __init__(self, index=0):
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed):
        self._initial = int(seed)
        self.rng = np.random.Generator(np.random.PCG64(self._initial))

    def seed(self):
        import random

        s = random.getrandbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._initial

    def get_state(self):
        import pickle

        from mindtorch import tensor, uint8

        blob = pickle.dumps((self._initial, self.rng.bit_generator.state))
        return tensor(list(blob), dtype=uint8)

    def set_state(self, state):
        import pickle

        blob = bytes(state.tolist()) if hasattr(state, "tolist") else bytes(state)
        self._initial, st = pickle.loads(blob)
        self.rng.bit_generator.state = st
