-- What a load has seen is decided by the database's transaction
-- visibility, not by clocks (docs/architecture.md, "Freshness").
--
-- Every row written to flags or data_changes carries the id of the
-- transaction that wrote it (stamp: pg_current_xact_id(), the 64-bit id
-- that never wraps, as a bigint: the planner estimates a range of bigints
-- from the column's statistics, where for xid8 it would guess a third of
-- the table), set by a trigger whatever the statement gives. A
-- load remembers which transaction ids it has seen finished; the next one
-- reads the rows stamped by any other: those at or above the first id it
-- did not check, and those of the transactions it found still open. This
-- holds whatever the commit order, the length of a transaction, the role
-- that wrote it, or a replica's lag, and it needs no privilege: the loads
-- read pg_current_snapshot() and pg_xact_status(), which any role may.
--
-- What a stamp cannot show, a row of data_changes with kind 'reload'
-- tells: approved flags deleted, trend rows deleted or rewritten. The next
-- load then reads everything, as it does when a table it reads has new
-- storage (a TRUNCATE, a restore that dropped and created it: the loader
-- compares pg_class's relfilenodes, see loader/position.go).
--
-- flag_totals, the count of approved flags that told a load to read
-- everything when it disagreed with the snapshot, goes: its triggers did
-- not see TRUNCATE, and after a TRUNCATE and an import it counted every
-- flag twice, so every load read every flag, for good.
--
-- The coalesced notification of votes (migration 00004) becomes exact.
-- A vote's transaction, just before it commits, first registers (a shared
-- advisory lock until its commit ends, on either of two registration
-- locks), then tries the notifiers' two locks; with neither, it does not
-- notify: a transaction holding one is committing and will. Before a load
-- that a notification woke, the loader passes a barrier
-- (flagpole_barrier, loader/settle.go): it takes and lets go each
-- notifiers' lock, so every vote that did not notify because of a
-- notifier it heard from has registered, then takes and lets go each
-- registration lock exclusively, so every vote registered has committed.
-- While it waits for one registration lock, votes register on the other:
-- no writer ever waits on a lock, or notifies because of a barrier. A vote
-- that can register on neither (two barriers at once, or another
-- session's lock) notifies itself.

-- +goose Up
ALTER TABLE flags ADD COLUMN stamp bigint NOT NULL DEFAULT 0;
ALTER TABLE data_changes ADD COLUMN stamp bigint NOT NULL DEFAULT 0;
ALTER TABLE data_changes DROP CONSTRAINT data_changes_kind_check;
ALTER TABLE data_changes ADD CONSTRAINT data_changes_kind_check
    CHECK (kind IN ('import', 'seed', 'snapshot', 'reload'));

-- +goose StatementBegin
CREATE FUNCTION flagpole_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.stamp := pg_current_xact_id()::text::bigint;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'flags' THEN
        NEW.updated_at := clock_timestamp();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
DROP TRIGGER flags_touch ON flags;
CREATE TRIGGER flags_stamp BEFORE INSERT OR UPDATE ON flags
    FOR EACH ROW EXECUTE FUNCTION flagpole_stamp();
CREATE TRIGGER data_changes_stamp BEFORE INSERT OR UPDATE ON data_changes
    FOR EACH ROW EXECUTE FUNCTION flagpole_stamp();
CREATE INDEX flags_stamp_idx ON flags (stamp);
CREATE INDEX data_changes_stamp_idx ON data_changes (stamp);
DROP INDEX flags_updated_at_idx;

-- +goose StatementBegin
CREATE FUNCTION flagpole_flags_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM changed WHERE status = 'APPROVED') THEN
        INSERT INTO data_changes (kind) VALUES ('reload');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION flagpole_trends_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM changed) THEN
        INSERT INTO data_changes (kind) VALUES ('reload');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER flags_deleted AFTER DELETE ON flags REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_flags_deleted();
CREATE TRIGGER flag_snapshots_deleted AFTER DELETE ON flag_snapshots REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_trends_rewritten();
CREATE TRIGGER flag_snapshots_updated AFTER UPDATE ON flag_snapshots REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION flagpole_trends_rewritten();

DROP TRIGGER flags_totals_delete ON flags;
DROP TRIGGER flags_totals_update ON flags;
DROP TRIGGER flags_totals_insert ON flags;
DROP FUNCTION flagpole_flag_totals();
DROP TABLE flag_totals;

-- The locks: 7046029254386353131 and ...32 the notifiers', ...33 and
-- ...34 the registration.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_notify_coalesced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- In this order: registered before it tries the notifiers' locks.
    IF NOT (pg_try_advisory_xact_lock_shared(7046029254386353133)
            OR pg_try_advisory_xact_lock_shared(7046029254386353134)) THEN
        PERFORM pg_notify('flagpole_changes', 'flags');
    ELSIF pg_try_advisory_xact_lock(7046029254386353131) THEN
        PERFORM pg_notify('flagpole_changes', 'flags');
    ELSIF pg_try_advisory_xact_lock(7046029254386353132) THEN
        PERFORM pg_notify('flagpole_changes', 'flags');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- The loader's barrier (loader/settle.go), on a connection of its own:
-- each notifiers' lock, then each registration lock, taken exclusively
-- and let go at once, each waited for at most wait_ms (a vote holds one
-- while it commits). A lock some other session holds past the wait is
-- passed over and counted in waited_out; the loader gives the call a
-- connection of its own and closes it when the call fails. lsn is where
-- the primary's WAL was then, for a loader that reads a replica to wait
-- for.
-- +goose StatementBegin
CREATE FUNCTION flagpole_barrier(wait_ms integer, OUT waited_out integer, OUT lsn text)
LANGUAGE plpgsql AS $$
DECLARE
    k bigint;
BEGIN
    waited_out := 0;
    PERFORM set_config('lock_timeout', wait_ms || 'ms', true);
    FOREACH k IN ARRAY ARRAY[7046029254386353131, 7046029254386353132,
                             7046029254386353133, 7046029254386353134]::bigint[] LOOP
        BEGIN
            PERFORM pg_advisory_lock(k);
            PERFORM pg_advisory_unlock(k);
        EXCEPTION WHEN lock_not_available THEN
            waited_out := waited_out + 1;
        END;
    END LOOP;
    -- A lock granted in the instant its wait timed out stays held by the
    -- session though the wait failed (session-level locks outlive the
    -- failed block): let go of them all.
    IF waited_out > 0 THEN
        PERFORM pg_advisory_unlock_all();
    END IF;
    IF NOT pg_is_in_recovery() THEN
        lsn := pg_current_wal_lsn()::text;
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION flagpole_barrier(integer);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_notify_coalesced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_try_advisory_xact_lock(7046029254386353131) THEN
        PERFORM pg_notify('flagpole_changes', 'flags');
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TABLE flag_totals (
    id       BOOLEAN PRIMARY KEY DEFAULT true CHECK (id),
    approved BIGINT NOT NULL
);
INSERT INTO flag_totals (approved) SELECT count(*) FROM flags WHERE status = 'APPROVED';
-- +goose StatementBegin
CREATE FUNCTION flagpole_flag_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE flag_totals SET approved = approved
        + CASE WHEN TG_OP <> 'DELETE' AND NEW.status = 'APPROVED' THEN 1 ELSE 0 END
        - CASE WHEN TG_OP <> 'INSERT' AND OLD.status = 'APPROVED' THEN 1 ELSE 0 END;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER flags_totals_insert AFTER INSERT ON flags
    FOR EACH ROW WHEN (NEW.status = 'APPROVED') EXECUTE FUNCTION flagpole_flag_totals();
CREATE TRIGGER flags_totals_update AFTER UPDATE OF status ON flags
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION flagpole_flag_totals();
CREATE TRIGGER flags_totals_delete AFTER DELETE ON flags
    FOR EACH ROW WHEN (OLD.status = 'APPROVED') EXECUTE FUNCTION flagpole_flag_totals();
DROP TRIGGER flag_snapshots_updated ON flag_snapshots;
DROP TRIGGER flag_snapshots_deleted ON flag_snapshots;
DROP TRIGGER flags_deleted ON flags;
DROP FUNCTION flagpole_trends_rewritten();
DROP FUNCTION flagpole_flags_deleted();
CREATE INDEX flags_updated_at_idx ON flags (updated_at);
DROP INDEX data_changes_stamp_idx;
DROP INDEX flags_stamp_idx;
DROP TRIGGER data_changes_stamp ON data_changes;
DROP TRIGGER flags_stamp ON flags;
CREATE TRIGGER flags_touch BEFORE UPDATE ON flags
    FOR EACH ROW EXECUTE FUNCTION flagpole_touch();
DROP FUNCTION flagpole_stamp();
DELETE FROM data_changes WHERE kind = 'reload';
ALTER TABLE data_changes DROP CONSTRAINT data_changes_kind_check;
ALTER TABLE data_changes ADD CONSTRAINT data_changes_kind_check
    CHECK (kind IN ('import', 'seed', 'snapshot'));
ALTER TABLE data_changes DROP COLUMN stamp;
ALTER TABLE flags DROP COLUMN stamp;
