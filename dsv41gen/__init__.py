"""dsv41gen: a declarative model-spec compiler for inference-engine model variants."""

__version__ = "0.1.0"
