"""How the reports decide that something moved: ``levels`` (the units tested: themes, areas, watched
themes, categories, each paper counted where it belongs), ``movement`` (the tests at every horizon,
one author's papers as one piece of evidence, the false discovery rate held) and ``trends`` (shares
by week, smoothed, and the category mix's expectation)."""
