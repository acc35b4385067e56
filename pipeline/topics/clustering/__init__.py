"""Clustering: papers into themes, and themes into areas.

``model`` (``ThemeModel``: cluster, place, name, merge), ``components`` (the clustering paths: UMAP,
HDBSCAN, Leiden, and BERTopic's parts), ``graph`` (Leiden on the neighbour graph), ``split`` (themes
no larger than a share of the corpus), ``placement`` (centroids, the nearest theme, outliers),
``fitting`` (fit and refit a whole corpus), ``refit`` (a refit that keeps what was placed), ``align`` (theme identities across
refits), ``areas`` (the tree above the themes, cut into areas). Names come from ``naming``.
"""
