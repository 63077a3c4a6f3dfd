"""The estimators: token model, ensemble and its context stage, iterative system, learners, operating point, folds, CRF, rule baseline."""
