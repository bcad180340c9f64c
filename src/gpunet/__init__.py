"""gpunet: infrastructure as code for GPU cluster networks."""

__version__ = "0.1.0"
