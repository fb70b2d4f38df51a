-- A load reads the votes it has not seen, not every vote of each flag it
-- reads. Until this migration a load read, for every flag a vote had
-- changed, all that flag's votes of the last 30 days again, to count
-- /stats' windows without ever counting a deleted vote: one flag with
-- 31,000 votes in 30 days made every load read 31,000 rows (91 ms, 0.7
-- of a core at 100 votes a second; bench/README.md, "one hot flag").
--
-- A vote carries the id of the transaction that inserted it (stamp, as
-- flags since 00005), set on INSERT, and again only when an UPDATE moves
-- it to another flag or time: a change of colour keeps it, so a load does
-- not count that vote twice. A load adds the votes stamped past what it
-- has seen to the flags they are on.
--
-- A vote deleted leaves no row. A flag carries the id of the last
-- transaction after which its votes cannot be followed by adding
-- (reread_stamp): one that took a vote from it (a DELETE, or an UPDATE
-- that moved the vote away), or inserted it approved or approved it. A load
-- that has not seen that transaction reads the flag's votes whole, as
-- before, in the same message. The loader also checks that each flag's
-- counters moved by exactly the votes it found; a flag whose did not (a
-- counter clamped at zero, say) is read whole the long way
-- (loader/votes.go).

-- +goose Up
ALTER TABLE votes ADD COLUMN stamp bigint NOT NULL DEFAULT 0;
ALTER TABLE flags ADD COLUMN reread_stamp bigint NOT NULL DEFAULT 0;
CREATE TRIGGER votes_stamp BEFORE INSERT ON votes
    FOR EACH ROW EXECUTE FUNCTION flagpole_stamp();
CREATE TRIGGER votes_stamp_moved BEFORE UPDATE OF flag_id, created_at ON votes
    FOR EACH ROW WHEN (OLD.flag_id IS DISTINCT FROM NEW.flag_id OR OLD.created_at IS DISTINCT FROM NEW.created_at)
    EXECUTE FUNCTION flagpole_stamp();
CREATE INDEX votes_stamp_idx ON votes (stamp);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.stamp := pg_current_xact_id()::text::bigint;
    IF TG_TABLE_NAME = 'flags' THEN
        -- A flag approved: the snapshot did not hold it. (One no longer
        -- approved leaves the windows without a read.)
        IF TG_OP = 'INSERT' THEN
            IF NEW.status = 'APPROVED' THEN
                NEW.reread_stamp := NEW.stamp;
            END IF;
        ELSE
            NEW.updated_at := clock_timestamp();
            IF NEW.status = 'APPROVED' AND OLD.status IS DISTINCT FROM 'APPROVED' THEN
                NEW.reread_stamp := NEW.stamp;
            END IF;
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
-- The column's statistics now, not at the next autovacuum (see 00006).
ANALYZE votes (stamp);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_vote_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved boolean := TG_OP = 'UPDATE' AND
        (OLD.flag_id IS DISTINCT FROM NEW.flag_id OR OLD.created_at IS DISTINCT FROM NEW.created_at);
BEGIN
    IF TG_OP = 'UPDATE' AND NOT moved AND OLD.color = NEW.color THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE flags
           SET red_count   = GREATEST(red_count - (OLD.color = 'red')::int, 0),
               green_count = GREATEST(green_count - (OLD.color = 'green')::int, 0),
               reread_stamp = CASE WHEN TG_OP = 'DELETE' OR moved
                                  THEN pg_current_xact_id()::text::bigint ELSE reread_stamp END
         WHERE id = OLD.flag_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE flags
           SET red_count   = red_count + (NEW.color = 'red')::int,
               green_count = green_count + (NEW.color = 'green')::int
         WHERE id = NEW.flag_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.stamp := pg_current_xact_id()::text::bigint;
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'flags' THEN
        NEW.updated_at := clock_timestamp();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_vote_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.flag_id = NEW.flag_id AND OLD.color = NEW.color THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE flags
           SET red_count   = GREATEST(red_count - (OLD.color = 'red')::int, 0),
               green_count = GREATEST(green_count - (OLD.color = 'green')::int, 0)
         WHERE id = OLD.flag_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE flags
           SET red_count   = red_count + (NEW.color = 'red')::int,
               green_count = green_count + (NEW.color = 'green')::int
         WHERE id = NEW.flag_id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP INDEX votes_stamp_idx;
DROP TRIGGER votes_stamp_moved ON votes;
DROP TRIGGER votes_stamp ON votes;
ALTER TABLE flags DROP COLUMN reread_stamp;
ALTER TABLE votes DROP COLUMN stamp;
