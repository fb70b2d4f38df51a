-- Every write to a table a load reads tells the listening instances at
-- once: one NOTIFY on the channel flagpole_changes when the writing
-- transaction commits. The payload names the load to wake: 'keys' for
-- api_keys, 'flags' for the rest. PostgreSQL folds identical
-- notifications of one transaction into one, so a transaction of many
-- statements (a vote's trigger updating its flag, an import) sends at
-- most two. The triggers are statement-level: a bulk write notifies once
-- per statement, not once per row.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION flagpole_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('flagpole_changes', TG_ARGV[0]);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER votes_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON votes
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER flags_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON flags
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER users_notify AFTER INSERT OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER flag_snapshots_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON flag_snapshots
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER data_changes_notify AFTER INSERT ON data_changes
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER api_keys_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('keys');

-- +goose Down
DROP TRIGGER api_keys_notify ON api_keys;
DROP TRIGGER data_changes_notify ON data_changes;
DROP TRIGGER flag_snapshots_notify ON flag_snapshots;
DROP TRIGGER users_notify ON users;
DROP TRIGGER flags_notify ON flags;
DROP TRIGGER votes_notify ON votes;
DROP FUNCTION flagpole_notify();
