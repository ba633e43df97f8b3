; Bake a souffle. No bowl is on the stand mixer yet and the spatula is still dirty.
(define (problem baking-p02-souffle)
  (:domain baking)
  (:objects
    mixing-bowl1 - mixing-bowl
    small-bowl1 - small-bowl
    pan1 - pan
    cup1 cup2 cup3 - measuring-cup
    egg1 - egg
    flour1 - flour
    sugar1 - sugar
    butter1 - butter
    mixture1 - mixture
    oven1 - oven
    spatula1 - spatula
    mixer1 - mixer
    plate1 - plate)
  (:init
    (in-shell egg1)
    (in-cup flour1 cup1) (small-portion flour1)
    (in-cup sugar1 cup2)
    (in-cup butter1 cup3)
    (mixer-free mixer1)
    (unmade mixture1)
    (pan-empty pan1) (pan-on-counter pan1)
    (oven-empty oven1) (oven-off oven1)
    (plate-empty plate1))
  (:goal (and (is-souffle mixture1))))
