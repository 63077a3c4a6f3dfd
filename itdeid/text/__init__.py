"""Text of a note: tokens, layout, spans, pieces."""
