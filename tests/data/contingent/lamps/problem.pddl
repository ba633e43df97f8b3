(define (problem lamps-4)
  (:domain lamps)
  (:objects a b c d - lamp)
  (:init
    (and
      (unknown (lit a))
      (unknown (lit d))
      (oneof (lit b) (lit c))
      (or (lit d) (not (lit a)))))
  (:goal (and (checked a) (checked b) (checked c) (checked d))))
