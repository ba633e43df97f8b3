; Bake a cake, take it out of the oven, turn the oven off and serve the cake on a plate.
; The mixing bowl already sits on the stand mixer and the spatula is clean.
(define (problem baking-p03-cake-plated)
  (:domain baking)
  (:objects
    mixing-bowl1 - mixing-bowl
    small-bowl1 - small-bowl
    pan1 - pan
    cup1 cup2 cup3 cup4 - measuring-cup
    egg1 - egg
    flour1 - flour
    sugar1 - sugar
    butter1 - butter
    baking-powder1 - baking-powder
    mixture1 - mixture
    oven1 - oven
    spatula1 - spatula
    mixer1 - mixer
    plate1 - plate)
  (:init
    (in-shell egg1)
    (in-cup flour1 cup1) (large-portion flour1)
    (in-cup sugar1 cup2)
    (in-cup butter1 cup3)
    (in-cup baking-powder1 cup4)
    (attached mixing-bowl1 mixer1)
    (unmade mixture1)
    (pan-empty pan1) (pan-on-counter pan1)
    (spatula-clean spatula1)
    (oven-empty oven1) (oven-off oven1)
    (plate-empty plate1))
  (:goal (and (on-plate mixture1 plate1) (oven-off oven1))))
