"""Declarative knowledge for the feature extractor, installed as ``itdeid.features``.

Data files only (JSON): regular-expression templates, the section-heading inventory, PHI phrase
suffixes. Code reads them through :mod:`itdeid.resources`.
"""
