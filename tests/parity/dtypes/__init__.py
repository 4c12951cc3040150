"""Dtypes: type promotion, finfo / iinfo, the wide unsigned integers."""
