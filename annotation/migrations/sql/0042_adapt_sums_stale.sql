-- An adaptive task's running sums (annotation_scoresums, counted by its refresh job from the
-- judgments recorded since the last refresh: annotation/selectors/adaptive.py) hold only
-- while recorded judgments stay as they were. Any statement that updates or deletes
-- judgments or error spans (a crowd participant's earlier attempt excluded, a task
-- deleted) marks the sums of their tasks stale, and the next refresh counts from the
-- start. Statement-level: one update per statement, nothing on an insert (the annotator
-- loop only inserts).

CREATE OR REPLACE FUNCTION adaptive_sums_judgments_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotation_sumscursor c SET stale = true
     WHERE NOT c.stale AND c.task_id IN (SELECT DISTINCT task_id FROM changed);
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION adaptive_sums_spans_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE annotation_sumscursor c SET stale = true
     WHERE NOT c.stale AND c.task_id IN (
        SELECT DISTINCT j.task_id FROM changed s JOIN annotation_judgment j ON j.id = s.judgment_id);
    RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER adaptive_sums_judgments_updated AFTER UPDATE ON annotation_judgment
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT
    EXECUTE FUNCTION adaptive_sums_judgments_changed();
CREATE OR REPLACE TRIGGER adaptive_sums_judgments_deleted AFTER DELETE ON annotation_judgment
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT
    EXECUTE FUNCTION adaptive_sums_judgments_changed();
CREATE OR REPLACE TRIGGER adaptive_sums_spans_updated AFTER UPDATE ON annotation_errorspan
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT
    EXECUTE FUNCTION adaptive_sums_spans_changed();
CREATE OR REPLACE TRIGGER adaptive_sums_spans_deleted AFTER DELETE ON annotation_errorspan
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT
    EXECUTE FUNCTION adaptive_sums_spans_changed();
