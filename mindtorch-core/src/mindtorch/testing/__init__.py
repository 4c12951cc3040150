"""mindtorch.testing: testing utilities (torch.testing's API arrives here later).

    mindtorch.testing.conformance   the backend conformance kit: run it against any device with
                                    `python -m mindtorch.testing.conformance --device mydev`
"""
