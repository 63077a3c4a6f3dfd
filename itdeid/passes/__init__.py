"""The passes after the model, one module a pass or a small group; their order is itdeid.pipeline's."""
