-- Nothing to do on SQLite: the embedded default is one server process, so rate-limit buckets stay in its
-- memory and published posts reach its search index directly. PostgreSQL's 012 moves both into the
-- database for several instances; this file keeps the two numberings in step.
SELECT 1;
