"""Storage: the repository contract (`repository.py`), the schema model shared by every backend
(`models.py`), the migrations runner, and one package per backend (`sqlite/`)."""
