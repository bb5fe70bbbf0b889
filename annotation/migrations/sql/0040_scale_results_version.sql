-- Results versions (migration 0040_scale_results_snapshots): every write that changes a
-- campaign's human results without passing through the annotator loop bumps the campaign's
-- row of annotation_resultsversion, once per statement. New judgments are not counted here:
-- the loop's batch counters (annotation_batch.judged, skipped) count them, so the annotator
-- path takes no lock on a shared row. Each trigger names its changed rows "changed".

CREATE OR REPLACE FUNCTION evalsite_results_bump(p_campaigns bigint[]) RETURNS void
LANGUAGE sql AS $$
    INSERT INTO annotation_resultsversion (campaign_id, version)
    SELECT c, 1 FROM (SELECT DISTINCT c FROM unnest(p_campaigns) c WHERE c IS NOT NULL) d
    ORDER BY c  -- one order for every writer: two statements never wait on each other
    ON CONFLICT (campaign_id) DO UPDATE SET version = annotation_resultsversion.version + 1
$$;

-- Rows with their campaign's id.
CREATE OR REPLACE FUNCTION evalsite_results_changed_campaign_id() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM evalsite_results_bump(ARRAY(SELECT campaign_id::bigint FROM changed));
    RETURN NULL;
END $$;

-- Campaign rows themselves.
CREATE OR REPLACE FUNCTION evalsite_results_changed_campaign() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM evalsite_results_bump(ARRAY(SELECT id::bigint FROM changed));
    RETURN NULL;
END $$;

-- Rows of a system run (metric scores and statistics).
CREATE OR REPLACE FUNCTION evalsite_results_changed_run() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM evalsite_results_bump(ARRAY(
        SELECT r.campaign_id::bigint FROM changed c JOIN annotation_systemrun r ON r.id = c.run_id));
    RETURN NULL;
END $$;

-- Rows of a task (judgments, contrastive outputs).
CREATE OR REPLACE FUNCTION evalsite_results_changed_task() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM evalsite_results_bump(ARRAY(
        SELECT t.campaign_id::bigint FROM changed c JOIN annotation_task t ON t.id = c.task_id));
    RETURN NULL;
END $$;

-- Rows of a judgment (error spans).
CREATE OR REPLACE FUNCTION evalsite_results_changed_judgment() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM evalsite_results_bump(ARRAY(
        SELECT t.campaign_id::bigint FROM changed c
        JOIN annotation_judgment j ON j.id = c.judgment_id
        JOIN annotation_task t ON t.id = j.task_id));
    RETURN NULL;
END $$;

-- Judgments updated: only when a column results read changed (the loop sets durations
-- after a page's judgments are written: no bump, no lock). A column list cannot go with
-- transition tables, so the rows are compared here.
CREATE OR REPLACE FUNCTION evalsite_results_changed_judgment_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM evalsite_results_bump(ARRAY(
        SELECT t.campaign_id::bigint FROM changed n
        JOIN before_change o ON o.id = n.id
        JOIN annotation_task t ON t.id = n.task_id
        WHERE (n.task_id, n.item_id, n.annotator_id, n.is_repeat, n.score, n.fluency,
               n.preference, n.ranks, n.candidate_scores, n.post_edit, n.hter, n.edits,
               n.post_edit_length, n.excluded)
              IS DISTINCT FROM
              (o.task_id, o.item_id, o.annotator_id, o.is_repeat, o.score, o.fluency,
               o.preference, o.ranks, o.candidate_scores, o.post_edit, o.hter, o.edits,
               o.post_edit_length, o.excluded)));
    RETURN NULL;
END $$;
