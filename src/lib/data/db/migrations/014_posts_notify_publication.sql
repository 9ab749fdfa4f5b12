-- PostgreSQL only (postgres/014: the posts trigger notifies publication changes alone). SQLite serves one
-- instance, which hears of its posts in process: nothing to change here; the file keeps the numbers even.
SELECT 1;
