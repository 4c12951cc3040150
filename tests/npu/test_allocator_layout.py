"""The caching allocator under a repeated training step on the npu backend: once warm, every step gets the same
device addresses back, so launch plans keep the addresses their descriptors were refreshed to.

The step clears the gradients first: then nothing but the parameters and the optimizer's state lives from one
step into the next. (Cleared after the forward pass instead, the old gradients are still held while the forward
pass allocates, and the new ones can only land where the old ones were not: such a step alternates between two
layouts.)"""

import mindtorch as torch
import numpy as np
import pytest
from mindtorch_npu.state import ALLOCATOR
from test_training import GPT


def _training_step(optimizer):
    torch.manual_seed(0)
    model = GPT().to("npu")
    opt = optimizer(model.parameters())
    data = torch.tensor((np.arange(4)[:, None] + np.arange(9)) % 11)
    x, y = data[:, :-1].to("npu"), data[:, 1:].to("npu")

    def step():
        opt.zero_grad()
        loss = model(x, y)
        loss.backward()
        opt.step()
        return float(loss)  # the host reads the loss each step, as a training loop does

    return step


@pytest.mark.parametrize(
    "optimizer",
    [
        lambda params: torch.optim.SGD(params, lr=0.1),
        lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
        lambda params: torch.optim.AdamW(params, lr=1e-3),
    ],
    ids=["sgd", "momentum", "adamw"],
)
def test_a_repeated_step_gets_the_same_addresses(monkeypatch, optimizer):
    step = _training_step(optimizer)
    taken = []
    allocate = ALLOCATOR.allocate

    # every tensor's storage comes through allocate (the compiled common case included); workspaces are taken
    # inside the compiled launch, which holds the allocator's malloc itself
    def recorded(nbytes, device):
        storage = allocate(nbytes, device)
        taken.append((nbytes, storage.data))
        return storage

    monkeypatch.setattr(ALLOCATOR, "allocate", recorded)
    steps = []
    for _ in range(6):
        taken.clear()
        step()
        steps.append(list(taken))
    assert steps[3]
    assert steps[3:] == [steps[3]] * 3
