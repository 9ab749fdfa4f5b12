-- Number 015 on both databases. On PostgreSQL it adds kb_audit_append(), the audit append as one round
-- trip under the write lock (postgres/015_audit_append.sql); on SQLite the application appends (the
-- connection is in-process, a round trip costs nothing), so there is nothing to change.
SELECT 1;
