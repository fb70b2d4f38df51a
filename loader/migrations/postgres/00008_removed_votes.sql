-- A vote deleted (or moved to another flag or time) no longer makes the
-- next load read all its flag's votes of the last 30 days again (00007
-- did, through reread_stamp: on a flag with 31,000 votes, each load after
-- a withdrawal read 31,000 rows). The flag's row, which the vote's trigger
-- updates anyway (its counters), keeps its last 16 removals, each as
-- three numbers: the id of the transaction that removed the vote, the
-- vote's stamp, and its creation time in Unix milliseconds. A load that
-- reads the flag (its stamp moved) takes from /stats' windows the votes
-- it had counted, and reads the flag whole only when the removals it has
-- not seen may be more than the 16 kept (loader/votes.go).
--
-- Nothing new to grant: the voting application's role already updates
-- flags (the counters), and the API's reads them.

-- +goose Up
ALTER TABLE flags ADD COLUMN removed_votes bigint[] NOT NULL DEFAULT '{}';
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION flagpole_vote_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved boolean := TG_OP = 'UPDATE' AND
        (OLD.flag_id IS DISTINCT FROM NEW.flag_id OR OLD.created_at IS DISTINCT FROM NEW.created_at);
BEGIN
    IF TG_OP = 'UPDATE' AND NOT moved AND OLD.color = NEW.color THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' OR moved THEN
        UPDATE flags
           SET red_count   = GREATEST(red_count - (OLD.color = 'red')::int, 0),
               green_count = GREATEST(green_count - (OLD.color = 'green')::int, 0),
               removed_votes = (CASE WHEN cardinality(removed_votes) >= 48 THEN removed_votes[4:]
                                     ELSE removed_votes END) ||
                   ARRAY[pg_current_xact_id()::text::bigint, OLD.stamp,
                         (extract(epoch FROM OLD.created_at) * 1000)::bigint]
         WHERE id = OLD.flag_id;
    ELSIF TG_OP = 'UPDATE' THEN
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

-- +goose Down
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
ALTER TABLE flags DROP COLUMN removed_votes;
