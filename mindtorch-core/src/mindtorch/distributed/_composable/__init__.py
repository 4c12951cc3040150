"""torch.distributed._composable: the composable FSDP API's location (see mindtorch.distributed.fsdp)."""
