"""Service layer: verb-named functions that do the work views and consumers ask for."""
