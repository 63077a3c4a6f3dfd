"""What a de-identified note becomes: output formats and surrogates."""
