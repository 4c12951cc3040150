"""The per-device random state: a Philox-style (seed, offset) pair, as ACLNN's random operators take it.

Part 1 has no random kernels yet; the state exists so seeding, get_state and set_state behave as on
other devices (manual_seed seeds every device's generator).
"""

import struct

DEFAULT_SEED = 67280421310721


class NPUGenerator:
    def __init__(self, index=0):
        self.index = index
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed):
        self._seed, self.offset = int(seed), 0

    def seed(self):
        import random

        s = random.getrandbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def advance(self, increment):
        """Reserve `increment` random draws; returns (seed, offset) for the kernel that uses them."""
        offset = self.offset
        self.offset += increment
        return self._seed, offset

    def get_state(self):
        from mindtorch import tensor, uint8

        return tensor(list(struct.pack("<QQ", self._seed, self.offset)), dtype=uint8)

    def set_state(self, state):
        blob = bytes(state.tolist()) if hasattr(state, "tolist") else bytes(state)
        if len(blob) != 16:
            raise RuntimeError(f"RNG state is wrong size: expected 16 bytes, got {len(blob)}")
        self._seed, self.offset = struct.unpack("<QQ", blob)
