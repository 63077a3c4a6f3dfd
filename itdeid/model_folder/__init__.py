"""Model folders: files, reading and writing, digests, the model card."""
