"""torch.distributed.checkpoint: sharded checkpoints belong to FSDP/DTensor, which mindtorch does not offer;
mindtorch.save / mindtorch.load write and read whole state dicts."""
