"""``planloop bench``: which model plans best, in which kind of world, at what cost, and
how surely. A suite (:mod:`.suite`) declares the families, instances, seeds and the
policy each plays; the runner (:mod:`.runner`) plays every contestant on the same
episodes; :mod:`.scores` turns the records into a leaderboard with Wilson and paired
bootstrap intervals; :mod:`.report` writes it; :mod:`.command` is the command line."""
