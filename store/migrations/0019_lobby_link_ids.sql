-- An arrived event keeps the recruitment platform's study and session
-- ids the participant's join link carried (Prolific's STUDY_ID and
-- SESSION_ID, the lobby's study_param and session_param), as the
-- participant id beside them: what ties a platform's submission to the
-- lobby's record of it. Empty for other events, for a link without
-- them, and for events stored before this column.

ALTER TABLE lobby_events ADD COLUMN link_study TEXT NOT NULL DEFAULT '';
ALTER TABLE lobby_events ADD COLUMN link_session TEXT NOT NULL DEFAULT '';
