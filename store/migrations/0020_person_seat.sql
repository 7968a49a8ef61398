-- person marks a participants row whose seat the schedule gives to a
-- person: a participant's seat, whoever played it in the round (the
-- person, a bot standing in after they left, or in a simulated study
-- the bot that plays it as the live study's participant). The report
-- analyses these seats as the participants; bot says who played.
-- Rows from before: a person's seat is one a person played or a bot
-- stood in for; a simulated study's rows cannot tell and stay false.

ALTER TABLE participants ADD COLUMN person BOOLEAN NOT NULL DEFAULT FALSE;

UPDATE participants SET person = (NOT bot) OR stand_in;
