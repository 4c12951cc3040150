import mindtorch


def parameters_to_vector(parameters):
    return mindtorch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, mindtorch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    with mindtorch.no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[pointer : pointer + n].view_as(p))
            pointer += n
