"""Scores and reports: evaluation, corpus statistics, results files."""
