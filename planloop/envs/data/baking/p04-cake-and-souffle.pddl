; Bake a cake and a souffle. There is one mixing bowl, the oven takes one pan at a time,
; no bowl is on the stand mixer yet and the spatula is still dirty.
(define (problem baking-p04-cake-and-souffle)
  (:domain baking)
  (:objects
    mixing-bowl1 - mixing-bowl
    small-bowl1 - small-bowl
    pan1 pan2 - pan
    cup1 cup2 cup3 cup4 cup5 cup6 cup7 - measuring-cup
    egg1 egg2 - egg
    flour1 flour2 - flour
    sugar1 sugar2 - sugar
    butter1 butter2 - butter
    baking-powder1 - baking-powder
    mixture1 mixture2 - mixture
    oven1 - oven
    spatula1 - spatula
    mixer1 - mixer
    plate1 plate2 - plate)
  (:init
    (in-shell egg1) (in-shell egg2)
    (in-cup flour1 cup1) (large-portion flour1)
    (in-cup flour2 cup2) (small-portion flour2)
    (in-cup sugar1 cup3) (in-cup sugar2 cup4)
    (in-cup butter1 cup5) (in-cup butter2 cup6)
    (in-cup baking-powder1 cup7)
    (mixer-free mixer1)
    (unmade mixture1) (unmade mixture2)
    (pan-empty pan1) (pan-on-counter pan1)
    (pan-empty pan2) (pan-on-counter pan2)
    (oven-empty oven1) (oven-off oven1)
    (plate-empty plate1) (plate-empty plate2))
  (:goal (and (is-cake mixture1) (is-souffle mixture2))))
