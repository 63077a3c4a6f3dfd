"""The template engine: guarded regular expressions, their prefilter and line bounds."""
