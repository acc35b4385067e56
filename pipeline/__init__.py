"""paper-trends: topic trends over research-paper listings.

Stages: ``ingest`` (listings -> data/interim/listings.parquet), ``clean`` (-> data/processed/papers.parquet).
Importing the package is cheap: heavy libraries are imported inside the modules that need them.
"""

__version__ = "0.1.0"
