-- A load counts the users only when they may have changed. Counting them
-- every load (SELECT count(*) FROM users) costs PostgreSQL a scan of the
-- table, about 100 ms of CPU at a million users, and loads run up to 40
-- times a second while people vote.
--
-- A user added carries the id of the transaction that added it (stamp,
-- as flags do since 00005): a load that finds a user stamped past what
-- it has seen counts them all again. Users deleted leave no row: a
-- statement that deletes some writes a row of data_changes of kind
-- 'users', which makes the next load count them (the long way, see
-- loader/atonce.go). A TRUNCATE gives the table new storage: the next
-- load reads everything.

-- +goose Up
ALTER TABLE users ADD COLUMN stamp bigint NOT NULL DEFAULT 0;
CREATE TRIGGER users_stamp BEFORE INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION flagpole_stamp();
CREATE INDEX users_stamp_idx ON users (stamp);
-- The column's statistics now, not at the next autovacuum: without them
-- the planner guesses a third of the table has stamp >= next, and the
-- load's EXISTS over users (loader/queries.go, atOnce) scans the table
-- for a first match it expects at once instead of probing the index.
ANALYZE users (stamp);
ALTER TABLE data_changes DROP CONSTRAINT data_changes_kind_check;
ALTER TABLE data_changes ADD CONSTRAINT data_changes_kind_check
    CHECK (kind IN ('import', 'seed', 'snapshot', 'reload', 'users'));
-- +goose StatementBegin
CREATE FUNCTION flagpole_users_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM changed) THEN
        INSERT INTO data_changes (kind) VALUES ('users');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER users_deleted AFTER DELETE ON users REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_users_deleted();

-- +goose Down
DROP TRIGGER users_deleted ON users;
DROP FUNCTION flagpole_users_deleted();
DELETE FROM data_changes WHERE kind = 'users';
ALTER TABLE data_changes DROP CONSTRAINT data_changes_kind_check;
ALTER TABLE data_changes ADD CONSTRAINT data_changes_kind_check
    CHECK (kind IN ('import', 'seed', 'snapshot', 'reload'));
DROP INDEX users_stamp_idx;
DROP TRIGGER users_stamp ON users;
ALTER TABLE users DROP COLUMN stamp;
