-- Every write to a table a load reads wakes the listening instances: a
-- NOTIFY on the channel flagpole_changes, delivered when the writing
-- transaction commits. The payload names the load to wake: 'keys' for
-- api_keys, 'flags' for the rest.
--
-- A NOTIFY holds a database-wide lock from just before its transaction's
-- commit until the commit is durable, so transactions that notify commit
-- one at a time: at one NOTIFY per vote, 16 writers went from about 2,400
-- votes a second to 375 on a machine whose commit takes 2.5 ms. The vote
-- and user triggers therefore notify only when no other transaction is
-- notifying at that moment: a deferred trigger, which runs just before
-- the commit, takes a transaction-scoped advisory lock without waiting,
-- and only the transaction that gets it notifies. One that does not
-- commits right after the one that holds it, and the loader, woken by
-- that one, reads again while any writing transaction is still open (see
-- loader/wake.go): no change is left behind, and writers never wait.
-- Writes that are rare (a flag's status, keys, the daily snapshot, the
-- bulk writes of flagpole's own commands) always notify, once per
-- statement; a flag updated by a vote's trigger notifies through the vote.
-- PostgreSQL folds identical notifications of one transaction into one.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION flagpole_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A flag updated by a vote's trigger (depth 2) is the vote's to tell.
    IF pg_trigger_depth() = 1 THEN
        PERFORM pg_notify('flagpole_changes', TG_ARGV[0]);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION flagpole_notify_coalesced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- 7046029254386353131: this project's advisory lock of notifiers.
    IF pg_try_advisory_xact_lock(7046029254386353131) THEN
        PERFORM pg_notify('flagpole_changes', 'flags');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER votes_notify AFTER INSERT OR UPDATE OR DELETE ON votes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION flagpole_notify_coalesced();
CREATE CONSTRAINT TRIGGER users_notify AFTER INSERT OR DELETE ON users
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION flagpole_notify_coalesced();
CREATE TRIGGER votes_truncate_notify AFTER TRUNCATE ON votes
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER users_truncate_notify AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_notify('flags');
CREATE TRIGGER flags_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON flags
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
DROP TRIGGER flags_notify ON flags;
DROP TRIGGER users_truncate_notify ON users;
DROP TRIGGER votes_truncate_notify ON votes;
DROP TRIGGER users_notify ON users;
DROP TRIGGER votes_notify ON votes;
DROP FUNCTION flagpole_notify_coalesced();
DROP FUNCTION flagpole_notify();
