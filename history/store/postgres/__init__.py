"""The turn store on PostgreSQL: a weighted tsvector kept by the database, under a GIN index."""
