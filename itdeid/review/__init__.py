"""Review: a data team looks at what the model did to a sample of its own notes and corrects it.

:mod:`~itdeid.review.sample` chooses the notes (most by risk, the rest at random, the design
recorded so that what review finds can be weighted to the whole batch);
:mod:`~itdeid.review.store` keeps the sample, the model's spans and the reviewer's corrections
in a private folder and exports them as gold annotations; :mod:`~itdeid.review.server` serves
the review page (``page.html``) to a browser on this machine.
"""
