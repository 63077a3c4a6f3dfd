"""Training: the recipe, presets and cross-validation."""
