"""`gpunet node-check`: one GPU host judges itself against the expectations gpunet installed on it."""
